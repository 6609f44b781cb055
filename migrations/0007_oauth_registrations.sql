CREATE TABLE `oauth_registrations` (
	`id` text PRIMARY KEY NOT NULL,
	`client_key` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `oauth_registrations_client` ON `oauth_registrations` (`client_key`,`created_at`);