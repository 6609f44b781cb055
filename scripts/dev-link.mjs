// `npm run dev:link [-- --email X]`: a fresh one-time sign-in link to the local dashboard for the demo
// admin (or for X, who is signed up when they use it), recorded as an emailed link is: usable once,
// valid 15 minutes. The link alone goes to stdout (`open "$(npm run -s dev:link)"`), the note to stderr.
import { devCall, devLinkArgs, localBase, signInLinkLines } from './local.mjs';

try {
  const { email, port } = devLinkArgs(process.argv.slice(2));
  const link = await devCall(localBase(port), '/api/v1/dev/sign-in-link', email ? { email } : {}).catch((error) => {
    throw new Error(error.cause?.code === 'ECONNREFUSED' ? `the local service is not running on port ${port}: start it with \`npm run dev\`` : error.message);
  });
  const [note] = signInLinkLines(link, { port });
  console.error(note);
  process.stdout.write(`${link.url}\n`);
} catch (error) {
  console.error(`dev:link: ${error.message}`);
  process.exit(1);
}
