CREATE TABLE `bundles` (
	`id` text PRIMARY KEY NOT NULL,
	`sha256` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`mime_type` text NOT NULL,
	`comment` text,
	`blob_key` text NOT NULL,
	`survey_id` text NOT NULL,
	`uploaded_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bundles_uploaded` ON `bundles` (`uploaded_at`,`id`);--> statement-breakpoint
CREATE TABLE `contents` (
	`subject` text NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`survey_id` text NOT NULL,
	`purl` text,
	`name` text NOT NULL,
	`version` text,
	`data` text NOT NULL,
	PRIMARY KEY(`subject`, `kind`, `key`)
);
--> statement-breakpoint
CREATE INDEX `contents_survey` ON `contents` (`survey_id`);--> statement-breakpoint
CREATE INDEX `contents_purl` ON `contents` (`purl`);--> statement-breakpoint
CREATE TABLE `health_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`subject` text,
	`survey_type` text NOT NULL,
	`status` text NOT NULL,
	`outcome` text,
	`failure_class` text,
	`ci_run_id` text,
	`tag` text,
	`upload_id` text,
	`idempotency_key` text,
	`components` integer,
	`crypto_assets` integer,
	`observations` integer,
	`previous_run_id` text,
	`previous_components` integer,
	`previous_crypto_assets` integer,
	`created_at` text NOT NULL,
	`finished_at` text,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `health_runs_created` ON `health_runs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `health_runs_subject` ON `health_runs` (`subject`,`created_at`);--> statement-breakpoint
CREATE INDEX `health_runs_ci` ON `health_runs` (`ci_run_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`operation` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`answer` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`operation`, `key`)
);
--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`progress` integer DEFAULT 0 NOT NULL,
	`message` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	`metadata` text NOT NULL,
	`parent_id` text,
	`step_type` text,
	`step_label` text,
	`tag` text,
	`target` text,
	`notes` text,
	`json_tags` text,
	`deleted_at` text,
	`supersedes` text,
	`failure_class` text,
	`seq` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_created` ON `jobs` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_parent` ON `jobs` (`parent_id`);--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `subjects` (
	`name` text PRIMARY KEY NOT NULL,
	`first_seen` text NOT NULL,
	`last_seen` text NOT NULL,
	`criticality` text DEFAULT 'unclassified' NOT NULL,
	`latest_survey_id` text
);
--> statement-breakpoint
CREATE TABLE `uploads` (
	`upload_id` text PRIMARY KEY NOT NULL,
	`blob_key` text NOT NULL,
	`bundle_id` text NOT NULL,
	`survey_id` text NOT NULL,
	`step_id` text NOT NULL,
	`sha256` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`part_size` integer NOT NULL,
	`part_count` integer NOT NULL,
	`status` text NOT NULL,
	`idempotency_key` text,
	`created_at` text NOT NULL,
	`completed_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `uploads_blob` ON `uploads` (`blob_key`);--> statement-breakpoint
CREATE INDEX `uploads_survey` ON `uploads` (`survey_id`);