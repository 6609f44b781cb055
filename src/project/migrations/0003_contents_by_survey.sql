-- Contents are kept by survey and attempt; a subject's current contents are pointers to them
-- (subject_contents). Written by hand: drizzle-kit cannot express the copy.
CREATE TABLE `contents_by_survey` (
	`survey_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`purl` text,
	`name` text NOT NULL,
	`version` text,
	`data` text NOT NULL,
	PRIMARY KEY(`survey_id`, `attempt`, `kind`, `key`)
);
--> statement-breakpoint
INSERT INTO `contents_by_survey` (`survey_id`, `attempt`, `kind`, `key`, `purl`, `name`, `version`, `data`)
	SELECT `survey_id`, 1, `kind`, `key`, `purl`, `name`, `version`, `data` FROM `contents`;
--> statement-breakpoint
CREATE TABLE `subject_contents` (
	`subject` text NOT NULL,
	`kind` text NOT NULL,
	`survey_id` text NOT NULL,
	`attempt` integer NOT NULL,
	PRIMARY KEY(`subject`, `kind`)
);
--> statement-breakpoint
INSERT INTO `subject_contents` (`subject`, `kind`, `survey_id`, `attempt`)
	SELECT `subject`, `kind`, max(`survey_id`), 1 FROM `contents` GROUP BY `subject`, `kind`;
--> statement-breakpoint
CREATE INDEX `subject_contents_survey` ON `subject_contents` (`survey_id`,`attempt`);--> statement-breakpoint
DROP TABLE `contents`;--> statement-breakpoint
DROP TABLE `contents_staging`;--> statement-breakpoint
ALTER TABLE `contents_by_survey` RENAME TO `contents`;--> statement-breakpoint
CREATE INDEX `contents_purl` ON `contents` (`purl`);--> statement-breakpoint
CREATE TABLE `content_purges` (
	`survey_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`kind` text NOT NULL,
	`queued_at` text NOT NULL,
	PRIMARY KEY(`survey_id`, `attempt`, `kind`)
);
--> statement-breakpoint
CREATE TABLE `step_leases` (
	`step_id` text PRIMARY KEY NOT NULL,
	`survey_id` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`holder` integer,
	`expires_at` integer NOT NULL,
	`resends` integer DEFAULT 0 NOT NULL,
	`message` text NOT NULL,
	`counts` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `step_leases_expiry` ON `step_leases` (`expires_at`);
