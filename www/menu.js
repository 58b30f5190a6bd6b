// The context menu of a box (#menu): the transforms of its function, its callers and callees,
// copying its name. Choices go to state.js.
import { eventTarget } from "./context.js";
import { $, onWindow } from "./dom.js";
import { NO_NODE } from "./flame.js";
import { addTransform, frameLabel, selectFrame, setView } from "./state.js";
import { hideTooltip } from "./tooltip.js";
import { TRANSFORMS } from "./transforms.js";

export function openMenu(info, ev) {
  if (info.node === NO_NODE || info.node === 0) return;
  const menu = $("menu");
  const items = TRANSFORMS.map(([kind, label]) => [label, () => addTransform(kind, info.frame)]);
  items.push([
    "Show callers and callees",
    () => {
      selectFrame(info.frame, "sandwich");
      setView("sandwich");
    },
  ]);
  items.push(["Copy name", () => navigator.clipboard?.writeText(frameLabel(info.frame))]);
  menu.replaceChildren(
    ...items.map(([label, fn]) => {
      const b = document.createElement("button");
      b.textContent = label;
      b.addEventListener("click", () => {
        closeMenu();
        fn();
      });
      return b;
    }),
  );
  menu.hidden = false;
  menu.style.left = `${Math.min(ev.clientX, window.innerWidth - 240)}px`;
  menu.style.top = `${Math.min(ev.clientY, window.innerHeight - 200)}px`;
  hideTooltip();
}

export function closeMenu() {
  $("menu").hidden = true;
}

onWindow("mousedown", (e) => {
  if (!$("menu").contains(eventTarget(e))) closeMenu();
});
