CREATE TABLE `erasures` (
	`kind` text NOT NULL,
	`target_id` text NOT NULL,
	`org_id` text,
	`step` text NOT NULL,
	`cursor` text,
	`erased` integer DEFAULT 0 NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`queued_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`kind`, `target_id`)
);
--> statement-breakpoint
CREATE INDEX `erasures_queued` ON `erasures` (`queued_at`);