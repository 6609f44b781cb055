CREATE TABLE `vuln_import_parts` (
	`write_id` integer NOT NULL,
	`seq` integer NOT NULL,
	`part` text NOT NULL,
	PRIMARY KEY(`write_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `vuln_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`source_version` text,
	`started_at` text NOT NULL,
	`finished_at` text,
	`error` text,
	`records` integer DEFAULT 0 NOT NULL,
	`inserted` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`unchanged` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`changed_at` text
);
--> statement-breakpoint
CREATE INDEX `vuln_imports_changed` ON `vuln_imports` (`changed_at`);--> statement-breakpoint
CREATE TABLE `vuln_packages` (
	`base` text NOT NULL,
	`name_key` text NOT NULL,
	`ecosystem` text NOT NULL,
	`name` text NOT NULL,
	`record_id` text NOT NULL,
	`affected` text NOT NULL,
	PRIMARY KEY(`base`, `name_key`, `ecosystem`, `record_id`)
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
	`import_id` text NOT NULL,
	`write_id` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vuln_records_write` ON `vuln_records` (`write_id`);