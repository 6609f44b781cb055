CREATE TABLE `criticality_ratings` (
	`id` text PRIMARY KEY NOT NULL,
	`subject` text NOT NULL,
	`value` text NOT NULL,
	`prior_value` text NOT NULL,
	`rater` text NOT NULL,
	`rationale` text,
	`rated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `criticality_ratings_subject` ON `criticality_ratings` (`subject`,`rated_at`);--> statement-breakpoint
CREATE TABLE `portfolio_fixes` (
	`build` text NOT NULL,
	`rank` integer NOT NULL,
	`item_key` text NOT NULL,
	`gain` real NOT NULL,
	`row` text NOT NULL,
	`summary` text NOT NULL,
	`effects` text NOT NULL,
	PRIMARY KEY(`build`, `rank`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `portfolio_fixes_item` ON `portfolio_fixes` (`build`,`item_key`);--> statement-breakpoint
CREATE TABLE `portfolio_members` (
	`portfolio_id` text NOT NULL,
	`member_type` text NOT NULL,
	`value` text NOT NULL,
	`added_at` text NOT NULL,
	PRIMARY KEY(`portfolio_id`, `member_type`, `value`)
);
--> statement-breakpoint
CREATE TABLE `portfolio_results` (
	`portfolio_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL,
	`build` text NOT NULL,
	`computed_at` text NOT NULL,
	`as_of` text NOT NULL,
	`state` text NOT NULL,
	`model` text NOT NULL,
	`rows` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `portfolios` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`is_implicit` integer DEFAULT false NOT NULL,
	`settings` text NOT NULL,
	`status` text NOT NULL,
	`generation` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE TABLE `score_history` (
	`id` text PRIMARY KEY NOT NULL,
	`portfolio_id` text NOT NULL,
	`axis` text NOT NULL,
	`score` real NOT NULL,
	`band` text NOT NULL,
	`cause` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `score_history_portfolio` ON `score_history` (`portfolio_id`,`at`);--> statement-breakpoint
CREATE TABLE `scored_findings` (
	`subject` text NOT NULL,
	`id` text NOT NULL,
	`axis` text NOT NULL,
	`finding_key` text NOT NULL,
	`item_key` text,
	`penalty` real NOT NULL,
	`detail` text NOT NULL,
	PRIMARY KEY(`subject`, `id`)
);
--> statement-breakpoint
CREATE INDEX `scored_findings_item` ON `scored_findings` (`item_key`);--> statement-breakpoint
CREATE TABLE `scoring_work` (
	`portfolio_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL,
	`cause` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `scoring_work_expires` ON `scoring_work` (`expires_at`);--> statement-breakpoint
CREATE TABLE `subject_scores` (
	`subject` text PRIMARY KEY NOT NULL,
	`pqc` real NOT NULL,
	`vuln` real NOT NULL,
	`agility` real NOT NULL,
	`findings` integer NOT NULL,
	`stale` integer DEFAULT false NOT NULL,
	`as_of` text NOT NULL,
	`computed_at` text NOT NULL
);
