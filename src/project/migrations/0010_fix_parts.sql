CREATE TABLE `portfolio_fix_parts` (
	`build` text NOT NULL,
	`item_key` text NOT NULL,
	`field` text NOT NULL,
	`part` integer NOT NULL,
	`text` text NOT NULL,
	PRIMARY KEY(`build`, `item_key`, `field`, `part`)
);
--> statement-breakpoint
ALTER TABLE `portfolio_fixes` ADD `parted` integer DEFAULT 0 NOT NULL;