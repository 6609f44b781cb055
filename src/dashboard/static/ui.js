// The dashboard's few behaviours beyond links and forms, each an enhancement (the page works without it):
// buttons that open a native <dialog> (focus returns to the button when it closes) and copy buttons.
// No inline handlers and no HTML strings: the CSP allows neither.
(() => {
  document.addEventListener('click', (event) => {
    const opener = event.target.closest('[data-dialog]');
    if (opener) {
      const dialog = document.getElementById(opener.dataset.dialog);
      if (dialog && typeof dialog.showModal === 'function') {
        event.preventDefault();
        dialog.showModal();
        dialog.addEventListener('close', () => opener.focus(), { once: true });
      }
      return;
    }
    const closer = event.target.closest('[data-close]');
    if (closer) {
      event.preventDefault();
      closer.closest('dialog')?.close();
      return;
    }
    const copy = event.target.closest('[data-copy]');
    if (copy) {
      const source = document.getElementById(copy.dataset.copy);
      if (!source || !navigator.clipboard) return;
      navigator.clipboard.writeText(source.value ?? source.textContent).then(() => {
        const status = document.getElementById(`${copy.dataset.copy}-copied`);
        if (status) status.textContent = 'Copied.';
      });
    }
  });
})();
