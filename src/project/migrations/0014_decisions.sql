CREATE TABLE `decisions` (
	`id` text NOT NULL,
	`version` integer NOT NULL,
	`finding_type` text NOT NULL,
	`advisory_id` text,
	`package` text,
	`package_version` text,
	`version_range` text,
	`algorithm` text,
	`asset` text,
	`subject` text,
	`state` text NOT NULL,
	`justification` text,
	`response` text NOT NULL,
	`detail` text,
	`expires` text,
	`source` text,
	`decided_by` text NOT NULL,
	`decided_at` text NOT NULL,
	PRIMARY KEY(`id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `decisions_advisory` ON `decisions` (`advisory_id`);--> statement-breakpoint
CREATE INDEX `decisions_algorithm` ON `decisions` (`algorithm`);