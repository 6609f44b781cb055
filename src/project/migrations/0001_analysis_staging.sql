CREATE TABLE `contents_staging` (
	`survey_id` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`purl` text,
	`name` text NOT NULL,
	`version` text,
	`data` text NOT NULL,
	PRIMARY KEY(`survey_id`, `kind`, `key`)
);
--> statement-breakpoint
ALTER TABLE `health_runs` ADD `previous_observations` integer;--> statement-breakpoint
CREATE INDEX `health_runs_tag` ON `health_runs` (`tag`);--> statement-breakpoint
CREATE INDEX `idempotency_keys_key` ON `idempotency_keys` (`key`);