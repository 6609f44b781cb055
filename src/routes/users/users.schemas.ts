import { z } from '@hono/zod-openapi';

const USER_ID = '7b2d4f10-1c3e-4a5b-8c6d-9e0f1a2b3c4d';
const lower = (id: string) => id.toLowerCase();

export const Profile = z
  .object({
    id: z.uuid().openapi({ example: USER_ID }),
    email: z.string().openapi({ example: 'alice@example.com' }),
    name: z.string().openapi({ example: 'Alice' }),
  })
  .openapi('UserProfile');

export const UpdateProfile = z
  .object({
    name: z.string().trim().min(1, 'name must not be blank.').max(255, 'name is at most 255 characters.').openapi({ example: 'Alice Martin' }),
    email: z.string().optional().openapi({ description: 'Accepted only when it is the current email: the email cannot be changed.' }),
  })
  .openapi('UserProfileUpdate');

export const LastContext = z
  .object({
    orgId: z.uuid().overwrite(lower).openapi({ example: '3f1c2a9e-6b1d-4c1e-9a51-2f7c0c6b8e10' }),
    projectId: z.uuid().overwrite(lower).openapi({ example: '9c4e2b1a-7d3f-4e5a-8b6c-1d2e3f4a5b6c' }),
  })
  .openapi('LastContext');

export const Preferences = z
  .object({
    timezone: z.string().optional().openapi({ description: 'An IANA zone name; absent when never set.', example: 'Europe/Paris' }),
    last_context: LastContext.optional().openapi({ description: 'The organization and project last used; absent when never set.' }),
  })
  .openapi('UserPreferences');

export const PreferencesPatch = z
  .object({
    timezone: z.string().max(64).nullable().optional().openapi({ description: 'An IANA zone name; null clears it.', example: 'Europe/Paris' }),
    last_context: LastContext.nullable().optional().openapi({ description: 'An organization you belong to and a project in it you reach; null clears it.' }),
  })
  .openapi('UserPreferencesPatch');

export const MyOrganizations = z
  .object({
    organizations: z.array(z.object({
      id: z.uuid(),
      name: z.string(),
      slug: z.string(),
      current: z.boolean().openapi({ description: 'Whether this session is in it.' }),
    })),
  })
  .openapi('MyOrganizations');
