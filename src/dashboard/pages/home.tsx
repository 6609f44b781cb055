// The page a signed-in person lands on: who they are, the organization, the projects they reach (each
// marked when it is the one the session is on), and sign-out. The project pages follow (issue 21).
import { Document } from '../../mcp/pages/layout';
import { renderPage } from './render';

export interface HomeInput {
  user: { name: string; email: string };
  orgName: string;
  projects: { id: string; name: string }[];
  currentProjectId: string | null;
}

export function homePage(input: HomeInput): string {
  return renderPage(
    <Document title={input.orgName}>
      <h1>{input.orgName}</h1>
      <p class="muted lead">
        Signed in as <strong class="wrap">{input.user.name || input.user.email}</strong> <span class="wrap">({input.user.email})</span>
      </p>
      <h2 class="label">Your projects</h2>
      {input.projects.length ? (
        <ul class="steps">
          {input.projects.map((project) => (
            <li>
              <span class="wrap">{project.name}</span> {project.id === input.currentProjectId ? <span class="badge">current</span> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p>You reach no project in this organization yet: ask an administrator to add you to a team, or create one with the API.</p>
      )}
      <form method="post" action="/sign-out">
        <button type="submit" class="btn btn-block">
          Sign out
        </button>
      </form>
    </Document>,
  );
}
