CREATE TABLE `portfolio_snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`portfolio_id` text NOT NULL,
	`snapshot_job_id` text NOT NULL,
	`as_of` text NOT NULL,
	`state` text NOT NULL,
	`fixes` text NOT NULL,
	`previous` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `portfolio_snapshots_portfolio` ON `portfolio_snapshots` (`portfolio_id`,`as_of`);