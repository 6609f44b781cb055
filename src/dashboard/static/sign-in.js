// The dashboard's sign-in link page (src/dashboard/pages/sign-in.tsx): the link carries its one-time
// token in the fragment, which browsers never send to a server. This copies it into the hidden form,
// shows that form instead of the email form, and takes the token out of the address bar and history.
// It never submits the form itself: a mail scanner that opens the link (and runs scripts) uses nothing up.
// A link pasted into a tab already on this page only changes the fragment: that is read too.
(() => {
  const useLink = () => {
    const token = new URLSearchParams(window.location.hash.slice(1)).get('token');
    const form = document.getElementById('link-form');
    const field = form && form.querySelector('input[name="token"]');
    if (!token || !field) return;
    field.value = token;
    form.hidden = false;
    document.getElementById('email-form').hidden = true;
    window.history.replaceState(null, '', window.location.pathname + window.location.search);
    form.querySelector('button').focus();
  };
  useLink();
  window.addEventListener('hashchange', useLink);
})();
