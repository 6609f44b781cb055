-- A changed bundle writes what changed (docs/decisions.md): layered sets, the keys they no longer
-- hold, and the view every reader of content rows reads. WITHOUT ROWID added by hand.
CREATE TABLE `content_layers` (
	`survey_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`kind` text NOT NULL,
	`base_survey_id` text NOT NULL,
	`base_attempt` integer NOT NULL,
	PRIMARY KEY(`survey_id`, `attempt`, `kind`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `content_layers_base` ON `content_layers` (`base_survey_id`,`base_attempt`,`kind`);--> statement-breakpoint
CREATE TABLE `content_removals` (
	`survey_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	PRIMARY KEY(`survey_id`, `attempt`, `kind`, `key`)
) WITHOUT ROWID;
--> statement-breakpoint
-- Every set's rows as readers see them: a set's own rows, and, for a layered set, its base's rows of
-- the keys it has no row of and does not list as removed. `row_id` is the stored row's rowid.
CREATE VIEW `content_rows` AS
SELECT c.rowid AS row_id, c.survey_id, c.attempt, c.kind, c.key, c.purl, c.name, c.version, c.data FROM contents c
UNION ALL
SELECT b.rowid AS row_id, l.survey_id, l.attempt, b.kind, b.key, b.purl, b.name, b.version, b.data
FROM content_layers l JOIN contents b ON b.survey_id = l.base_survey_id AND b.attempt = l.base_attempt AND b.kind = l.kind
WHERE NOT EXISTS (SELECT 1 FROM contents d WHERE d.survey_id = l.survey_id AND d.attempt = l.attempt AND d.kind = l.kind AND d.key = b.key)
  AND NOT EXISTS (SELECT 1 FROM content_removals r WHERE r.survey_id = l.survey_id AND r.attempt = l.attempt AND r.kind = l.kind AND r.key = b.key);
