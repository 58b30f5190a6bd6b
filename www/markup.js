// The viewer's markup: element.js puts it in each <proftab-viewer> (its shadow root, or the
// page for the page's viewer). Text only: no profile data is ever put in markup.
export const MARKUP = `
<header id="toolbar">
  <span class="brand">proftab</span>
  <label class="button" id="open-label" title="Open one or more profile files">Open…<input type="file" id="file-input" multiple hidden></label>
  <div id="tabs" class="needs-profile" role="tablist">
    <button type="button" data-view="flame" role="tab" title="Flame graph aggregated by call path">Flame<span class="wide-only"> graph</span></button>
    <button type="button" data-view="time" role="tab" title="Samples in recorded order">Time<span class="wide-only"> order</span></button>
    <button type="button" data-view="sandwich" role="tab" title="Callers and callees of the selected function">Sandwich</button>
    <button type="button" data-view="calltree" role="tab" title="Call tree: total and self per call path, heaviest first (keyboard: arrows, *, Enter)">Call tree</button>
    <button type="button" data-view="compare" role="tab" id="compare-tab" hidden title="Compare sources: a differential flame graph and the change per function">Compare</button>
    <button type="button" data-view="source" role="tab" id="source-tab" title="Source lines of a file with their costs in every value type (drop the source files to see their text)">Source</button>
    <button type="button" data-view="sql" role="tab" id="sql-tab" title="SQL over the profile's tables (DuckDB, in the page; loaded when first opened)">SQL</button>
  </div>
  <label class="needs-profile"><span class="wide-only">Value </span><select id="value-type" title="The value type: box widths and every total"></select></label>
  <label class="needs-profile" id="source-label"><span class="wide-only">Source </span><select id="source" title="Only the samples of this source (file)"></select></label>
  <div class="needs-profile" id="view-options-box">
    <button type="button" id="view-options" aria-expanded="false" aria-controls="view-menu" title="How the flame graph is drawn: order, flame or icicle, bottom-up">View ▾</button>
    <fieldset id="view-menu" aria-label="View options" hidden>
      <button type="button" class="toggle" id="order" title="Order siblings widest first or alphabetically">Widest first</button>
      <button type="button" class="toggle" id="icicle" title="Root at the bottom (flame) or at the top (icicle)">Flame ↑</button>
      <button type="button" class="toggle" id="bottom-up" aria-pressed="false" title="Flame graph of the inverted call tree: innermost functions (self time) at the root, their callers above">Bottom-up</button>
    </fieldset>
  </div>
  <span class="needs-profile search"><input id="search" type="search" placeholder="Search (/regex/)" spellcheck="false"></span>
  <select class="needs-profile" id="export" title="Download the profile in another format or the graph as an image, or copy a link that holds the profile and the view (profiles up to 64 KB compressed; the link's #fragment never reaches a server)"><option value="">Export…</option></select>
  <span class="spacer"></span>
  <button type="button" id="theme" class="toggle" title="Light / dark">◐</button>
</header>
<div id="bar" class="needs-profile">
  <nav id="crumbs" aria-label="Zoom path"></nav>
  <button type="button" id="range" hidden title="Show only the samples in the visible time range, in every view">Use visible time range</button>
  <select id="facet" hidden title="Only the samples with this label or property (pprof labels, goroutine state, Rprof run, …)"></select>
  <div id="chips"></div>
  <span id="match" role="status"></span>
  <button id="hide-matches" type="button" hidden title="Hide every function the search matches: each is merged into its caller (e.g. /^(eval|withVisible|tryCatch.*)$/ for R's evaluation frames)">Hide matches</button>
  <div id="status"></div>
  <span id="symbols" role="status" hidden></span>
  <span id="link-status" role="status"></span>
  <button type="button" id="warnings" hidden title="What the readers reported"></button>
</div>
<div id="compare-bar" hidden>
  <span class="side"><span class="caption">Baseline</span><span id="compare-base"></span></span>
  <span class="side"><span class="caption">Comparison</span><span id="compare-new"></span></span>
  <button type="button" class="toggle" id="compare-norm" title="Normalized: the comparison is scaled to the baseline's total, so a change is a change of share. Absolute: values as recorded">Normalized</button>
  <button type="button" class="toggle" id="compare-size" title="Box widths from the comparison (frames gone in it have none) or from the baseline (frames new in it have none)">Width: comparison</button>
  <button type="button" class="toggle" id="compare-palette" title="Colours: red / blue, or a palette safe for colour-blind viewers (vermillion / blue)">Red / blue</button>
  <span id="compare-legend-box"><span id="compare-faster"></span><canvas id="compare-legend" width="168" height="12"></canvas><span id="compare-slower"></span></span>
  <span id="compare-summary"></span>
</div>
<div id="error" role="alert" hidden><span id="error-text"></span><button type="button" id="error-close" title="Dismiss">×</button></div>
<section id="notice" role="alert" aria-labelledby="notice-title" hidden>
  <div class="notice-body"><p id="notice-title"></p><ul id="notice-list"></ul></div>
  <button type="button" id="notice-close" aria-label="Dismiss this notice" title="Dismiss">×</button>
</section>
<div id="progress" hidden>
  <div class="progress-box">
    <div id="progress-text">Loading…</div>
    <div class="track"><div id="progress-fill"></div></div>
    <button type="button" id="cancel">Cancel</button>
  </div>
</div>
<main id="app">
  <section id="empty">
    <h1>Drop profiles anywhere</h1>
    <p>pprof (also Go's <code>?debug=1</code> text and <code>?debug=2</code> / panic goroutine dumps), Rprof, OpenTelemetry, Firefox Profiler, collapsed stacks, Chrome .cpuprofile, speedscope.
      Drop several files to combine them. Nothing leaves your browser.</p>
    <p><label class="button big">Choose files…<input type="file" id="file-input-2" multiple hidden></label></p>
    <p id="sources-kept" role="status" hidden></p>
    <div id="examples"><h2>Or open an example</h2><div id="example-list"></div></div>
  </section>
  <section id="views" hidden>
    <div id="graph-pane">
      <div id="source-pane" hidden>
        <div id="source-bar">
          <label>File <select id="source-file" title="The profile's files with their total in the chosen value type"></select></label>
          <button type="button" class="toggle" id="source-only-cost" aria-pressed="false" title="Show only the lines with a cost">Costly lines only</button>
          <button type="button" id="source-next" title="Choose the next hot line, hottest first (key n; Shift+n the previous)">Next hot line</button>
          <label class="button" title="Add source files: matched to the profile's file names by the longest path suffix">Add source…<input type="file" id="source-input" multiple hidden></label>
          <label class="button" title="Add a folder of source files">Add folder…<input type="file" id="source-folder" webkitdirectory multiple hidden></label>
          <span id="source-note" role="status"></span>
        </div>
        <div id="source-scroll">
          <table id="source-table" aria-label="Source lines with their costs: arrow keys choose a line, n the next hot line"><thead></thead><tbody></tbody></table>
        </div>
      </div>
      <div class="canvas-box" id="main-box"><canvas id="main-canvas" aria-label="Flame graph"></canvas></div>
      <div class="canvas-box" id="compare-box" hidden><canvas id="compare-canvas" aria-label="Differential flame graph"></canvas></div>
      <div class="canvas-box" id="time-box" hidden><canvas id="time-canvas" aria-label="Time order"></canvas></div>
      <div id="calltree-pane" hidden>
        <div id="calltree-bar">
          <button type="button" class="toggle" id="tree-invert" aria-pressed="false" title="Invert call stack: innermost functions at the root with their self value, their callers below (the flame graph's Bottom-up)">Inverted</button>
          <button type="button" class="toggle" id="tree-compare" aria-pressed="false" hidden title="Baseline, comparison and change per call path, for the sources chosen in the Compare tab">Compare sources</button>
          <span id="tree-status" role="status"></span>
        </div>
        <div id="calltree" role="treegrid" tabindex="-1" aria-label="Call tree"></div>
      </div>
      <div id="sandwich-pane" hidden>
        <div class="pane-title" id="callers-title">Callers</div>
        <div class="canvas-box"><canvas id="callers-canvas" aria-label="Callers"></canvas></div>
        <div class="pane-title" id="callees-title">Callees</div>
        <div class="canvas-box"><canvas id="callees-canvas" aria-label="Callees"></canvas></div>
      </div>
    </div>
    <aside id="table-pane">
      <div id="table-bar">
        <input id="table-filter" type="search" placeholder="Filter functions" spellcheck="false">
        <button id="table-lines" type="button" aria-pressed="false" title="Source lines (file:line) instead of functions: a sample's self value goes to its innermost frame that has a line">Lines</button>
      </div>
      <div id="table-scroll">
        <table id="functions">
          <thead></thead>
          <tbody></tbody>
        </table>
      </div>
    </aside>
  </section>
</main>
<dialog id="export-dialog" aria-labelledby="export-title" aria-describedby="export-intro">
  <form method="dialog">
    <h2 id="export-title">Export</h2>
    <p id="export-intro"></p>
    <ul id="export-losses"></ul>
    <div class="export-actions">
      <button type="submit" value="download" id="export-download">Download</button>
      <button type="submit" value="cancel" id="export-cancel">Cancel</button>
    </div>
  </form>
</dialog>
<div id="tooltip" hidden></div>
<div id="menu" hidden role="menu"></div>
<div id="drop-overlay" hidden><div>Drop to open</div></div>
`;
