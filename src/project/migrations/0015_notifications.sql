CREATE TABLE `notify_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`destination_id` text NOT NULL,
	`message_ids` text NOT NULL,
	`event_type` text NOT NULL,
	`attempt` integer NOT NULL,
	`at` text NOT NULL,
	`status_code` integer,
	`duration_ms` integer NOT NULL,
	`answer_head` text,
	`error` text,
	`delivered` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notify_deliveries_destination` ON `notify_deliveries` (`destination_id`,`at`);--> statement-breakpoint
CREATE TABLE `notify_destinations` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`url_sealed` text,
	`url_hint` text,
	`recipients` text,
	`secret_sealed` text,
	`previous_secret_sealed` text,
	`previous_secret_until` text,
	`created_at` text NOT NULL,
	`created_by` text NOT NULL,
	`updated_at` text NOT NULL,
	`disabled_at` text,
	`disabled_reason` text,
	`failing_since` text,
	`next_slot_at` integer DEFAULT 0 NOT NULL,
	`kick_at` integer
);
--> statement-breakpoint
CREATE TABLE `notify_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`occurred_at` text NOT NULL,
	`ref` text NOT NULL,
	`built_at` text
);
--> statement-breakpoint
CREATE INDEX `notify_events_unbuilt` ON `notify_events` (`built_at`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `notify_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`destination_id` text NOT NULL,
	`event_id` text NOT NULL,
	`event_type` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`leased_until` integer,
	`state` text NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `notify_outbox_event` ON `notify_outbox` (`destination_id`,`event_id`);--> statement-breakpoint
CREATE INDEX `notify_outbox_due` ON `notify_outbox` (`destination_id`,`state`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `notify_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`events` text NOT NULL,
	`destination_ids` text NOT NULL,
	`subjects` text,
	`portfolio_ids` text,
	`min_severity` text,
	`min_band` text,
	`score_drop` integer,
	`stale_days` integer,
	`enabled` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
