// The notice (#notice): what a load could not do while something is still shown — files of a
// drop or an Open… that could not be read (one line each, with the reader's message) and a
// worker that failed and was replaced. Text only (file names and messages come from files);
// role="alert" so that screen readers announce it; the × button (or Escape on it) dismisses it.
import { $ } from "./dom.js";

/** Shows `title` and one list item per string of `items`, replacing what was shown. */
export function showNotice(title, items = []) {
  $("notice-title").textContent = title;
  $("notice-list").replaceChildren(
    ...items.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    }),
  );
  $("notice").hidden = false;
}

export function hideNotice() {
  $("notice").hidden = true;
}

/** The notice for the files of a load that could not be read (`[{name, message}]`). */
export function showFailedFiles(failed, read) {
  const n = failed.length;
  const title = `${n} of ${n + read} files could not be read; ${read === 1 ? "the other is" : "the others are"} shown:`;
  showNotice(
    title,
    failed.map((f) => `${f.name}: ${f.message}`),
  );
}

$("notice-close").addEventListener("click", hideNotice);
$("notice").addEventListener("keydown", (e) => {
  if (e.key === "Escape") hideNotice();
});
