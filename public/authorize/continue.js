// The assistant sign-in link's Continue page (src/mcp/pages): the link carries its one-time token in the
// fragment, which browsers never send to a server, so no request log holds it. This copies the token
// into the form the Continue button posts, and takes it out of the address bar and the history. It never
// submits the form itself: a mail scanner that opens the link (and runs scripts) uses nothing up.
(() => {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
  const field = document.querySelector('form input[name="token"]');
  if (!token || !field) return;
  field.value = token;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
})();
