CREATE TABLE `activity` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`project_id` text,
	`actor_id` text,
	`actor_kind` text NOT NULL,
	`action` text NOT NULL,
	`data` text NOT NULL,
	`trace_id` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `activity_org_created` ON `activity` (`org_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `activity_org_project_created` ON `activity` (`org_id`,`project_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `activity_org_action` ON `activity` (`org_id`,`action`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `credentials` (
	`jti` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`org_id` text NOT NULL,
	`project_id` text,
	`user_id` text NOT NULL,
	`parent_jti` text,
	`name` text,
	`permissions` text,
	`challenge_hash` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	`last_used_at` text
);
--> statement-breakpoint
CREATE INDEX `credentials_project` ON `credentials` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `credentials_parent` ON `credentials` (`parent_jti`);--> statement-breakpoint
CREATE INDEX `credentials_user_org` ON `credentials` (`user_id`,`org_id`);--> statement-breakpoint
CREATE TABLE `org_members` (
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`joined_at` text NOT NULL,
	`removed_at` text,
	`former_team_ids` text,
	PRIMARY KEY(`org_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `org_members_user` ON `org_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`retention_days` integer DEFAULT 90 NOT NULL,
	`created_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_slug` ON `organizations` (`slug`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`demo_project` integer DEFAULT false NOT NULL,
	`feature_flags` text DEFAULT '[]' NOT NULL,
	`created_at` text NOT NULL,
	`deleted_at` text
);
--> statement-breakpoint
CREATE INDEX `projects_org` ON `projects` (`org_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `projects_org_name_active` ON `projects` (`org_id`,`name`) WHERE deleted_at is null;--> statement-breakpoint
CREATE TABLE `roles` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text,
	`name` text NOT NULL,
	`system_role` integer DEFAULT false NOT NULL,
	`permissions` text NOT NULL,
	`position` integer DEFAULT 100 NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `roles_org` ON `roles` (`org_id`);--> statement-breakpoint
CREATE TABLE `sign_in_links` (
	`jti` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`used_at` text
);
--> statement-breakpoint
CREATE INDEX `sign_in_links_email` ON `sign_in_links` (`email`,`created_at`);--> statement-breakpoint
CREATE TABLE `team_members` (
	`team_id` text NOT NULL,
	`user_id` text NOT NULL,
	`added_at` text NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`)
);
--> statement-breakpoint
CREATE INDEX `team_members_user` ON `team_members` (`user_id`);--> statement-breakpoint
CREATE TABLE `team_projects` (
	`team_id` text NOT NULL,
	`project_id` text NOT NULL,
	PRIMARY KEY(`team_id`, `project_id`)
);
--> statement-breakpoint
CREATE INDEX `team_projects_project` ON `team_projects` (`project_id`);--> statement-breakpoint
CREATE TABLE `team_roles` (
	`team_id` text NOT NULL,
	`role_id` text NOT NULL,
	PRIMARY KEY(`team_id`, `role_id`)
);
--> statement-breakpoint
CREATE INDEX `team_roles_role` ON `team_roles` (`role_id`);--> statement-breakpoint
CREATE TABLE `teams` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`built_in` integer DEFAULT false NOT NULL,
	`all_projects` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `teams_org_name` ON `teams` (`org_id`,`name`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`timezone` text,
	`last_context` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email` ON `users` (`email`);