CREATE TABLE `render_work` (
	`job_id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`format` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `render_work_expires` ON `render_work` (`expires_at`);--> statement-breakpoint
CREATE TABLE `report_documents` (
	`report_id` text NOT NULL,
	`format` text NOT NULL,
	`job_id` text NOT NULL,
	`blob_key` text NOT NULL,
	`bytes` integer NOT NULL,
	`rendered_at` text NOT NULL,
	`duration_ms` integer NOT NULL,
	`template_version` text NOT NULL,
	`analysis_version` text NOT NULL,
	`provenance` text NOT NULL,
	PRIMARY KEY(`report_id`, `format`)
);
