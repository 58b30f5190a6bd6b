// The site's entry module (dist/index.html): one consumer of the <proftab-viewer> element
// (element.js), the page's viewer (`page` attribute: it draws in the page and owns the
// address). The page adds what a site has and an embedded viewer has not: the example
// profiles of the empty page and the profile of the address (a shared link, or `?url=`).
import "./element.js";
import { enter } from "./context.js";
import { loadFromAddress, showExamples } from "./load.js";

const viewer = document.querySelector("proftab-viewer[page]");
enter(viewer.ctx);
showExamples();
loadFromAddress();
