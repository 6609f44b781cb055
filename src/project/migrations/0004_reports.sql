CREATE TABLE `report_entries` (
	`report_id` text NOT NULL,
	`section` text NOT NULL,
	`position` integer NOT NULL,
	`key` text NOT NULL,
	`purl` text,
	`name` text NOT NULL,
	`explanation` text,
	`data` text NOT NULL,
	PRIMARY KEY(`report_id`, `section`, `position`)
);
--> statement-breakpoint
CREATE INDEX `report_entries_key` ON `report_entries` (`report_id`,`key`);--> statement-breakpoint
CREATE TABLE `reports` (
	`id` text PRIMARY KEY NOT NULL,
	`survey_id` text NOT NULL,
	`type` text NOT NULL,
	`subject` text NOT NULL,
	`source_survey_id` text NOT NULL,
	`source_attempt` integer NOT NULL,
	`produced_at` text NOT NULL,
	`blob_key` text NOT NULL,
	`summary` text NOT NULL,
	`provenance` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `reports_survey` ON `reports` (`survey_id`);--> statement-breakpoint
CREATE INDEX `reports_subject` ON `reports` (`subject`,`type`,`produced_at`);