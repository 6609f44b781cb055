ALTER TABLE `credentials` ADD `scopes` text;--> statement-breakpoint
ALTER TABLE `credentials` ADD `client_id` text;