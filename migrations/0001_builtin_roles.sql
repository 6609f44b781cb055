-- Built-in roles, the same for every organization (ids fixed per deployment; see src/auth/permissions.ts).
INSERT INTO roles (id, org_id, name, system_role, permissions, position, created_at) VALUES ('00000000-0000-4000-8000-000000000001', NULL, 'Admin', 1, '["project:view","project:edit","project:admin","project:portfolio:view","project:portfolio:rate","org:view","org:manage_org","org:manage_teams","org:invite_user","org:remove_user","org:create_project","org:delete_project","org:view_activity_log"]', 0, '2026-01-01T00:00:00.000Z');
--> statement-breakpoint
INSERT INTO roles (id, org_id, name, system_role, permissions, position, created_at) VALUES ('00000000-0000-4000-8000-000000000002', NULL, 'Member', 1, '["project:view","project:edit","project:portfolio:view","project:portfolio:rate","org:view","org:create_project"]', 1, '2026-01-01T00:00:00.000Z');
--> statement-breakpoint
INSERT INTO roles (id, org_id, name, system_role, permissions, position, created_at) VALUES ('00000000-0000-4000-8000-000000000003', NULL, 'Viewer', 1, '["project:view","project:portfolio:view","org:view"]', 2, '2026-01-01T00:00:00.000Z');
