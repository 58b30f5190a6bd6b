// What every flame-style view shares: labels and colours by frame, the tooltip, the context
// menu and errors. A view module passes its own options on top.
import { closeMenu, openMenu } from "../menu.js";
import { showError } from "../messages.js";
import { frameColor, frameLabel } from "../state.js";
import { showTooltip } from "../tooltip.js";

export { closeMenu };

/** FlameView options of a view: the shared ones, then `extra`. */
export function viewOptions(extra) {
  return {
    label: frameLabel,
    color: frameColor,
    rootLabel: () => "all",
    onHover: showTooltip,
    onContext: openMenu,
    // A worker fault is told by load.js, which loads the profile again.
    onError: (e) => e.fault || showError(String(e.message || e)),
    ...extra,
  };
}
