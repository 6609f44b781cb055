CREATE TABLE `vuln_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`records` integer DEFAULT 0 NOT NULL,
	`changed` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vuln_packages` (
	`base` text NOT NULL,
	`ecosystem` text NOT NULL,
	`name` text NOT NULL,
	`record_id` text NOT NULL,
	PRIMARY KEY(`base`, `name`, `ecosystem`, `record_id`)
);
--> statement-breakpoint
CREATE INDEX `vuln_packages_record` ON `vuln_packages` (`record_id`);--> statement-breakpoint
CREATE TABLE `vuln_records` (
	`id` text PRIMARY KEY NOT NULL,
	`modified` text NOT NULL,
	`published` text,
	`withdrawn` text,
	`record` text NOT NULL,
	`source` text NOT NULL,
	`import_id` text NOT NULL
);
