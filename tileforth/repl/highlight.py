"""Syntax highlighting of `%%forth` cells in Jupyter: a CodeMirror mode, "tileforth", that knows the
dictionary's words, registered for cells whose first line is `%%forth` (issue 26).

`%load_ext tileforth` in a kernel displays `javascript()` once. The classic notebook (and nbclassic)
runs it: it defines the mode on the page's CodeMirror 5 and maps cells starting with `%%forth` to it, the
way IPython extensions register their cell magics' languages (`CodeCell.options_default.highlight_modes`).

JupyterLab 4 and Notebook 7 run it too (their javascript renderer evaluates a trusted output), but hand it
no editor API: CodeMirror 6 languages and per-cell modes come from lab extensions, and a page script
reaches the application only where the server was started with `--expose-app-in-browser` (then
`window.jupyterapp`). There the script gives each code cell that starts with `%%forth` JupyterLab's own
Forth language (`text/x-forth`, CodeMirror's legacy forth mode: the standard words, not this word list)
through the cell models' public `mimeType`, and looks again every LAB_SCAN_MS (new cells, a cell's first
line edited, the notebook resetting its cells' language); a cell no longer starting with `%%forth` gets
the notebook's language back. Without the flag the output says how to get it, and `%%forth` cells stay
highlighted as Python. (A lab extension, which this package does not build, would lift both limits.)

Tokens: a `\\ ` comment to the end of the line and `( ... )` comments, numbers as the reader writes them
(decimal, $hex, #decimal, %binary, floats), the dictionary's words (keywords), the `%%forth` line (meta),
other words (variables: names the cell defines or that are unknown).
"""
from __future__ import annotations

import json
import os
import re

MODE = "tileforth"
LAB_SCAN_MS = 1000  # JupyterLab: how often the script gives %%forth cells the Forth language again


def word_names() -> list[str]:
    """The built-in words, from the tables the dictionary is made of (primitives, host and immediate
    words, built-in constants) and the prelude's definitions; the internal `(NAME)` words left out."""
    from tileforth.core.compile.primitives import REGISTRY
    from tileforth.core.session import interpreter
    from tileforth.core.session.words.table import WORDS

    with open(interpreter.PRELUDE, encoding="utf-8") as fh:
        prelude = re.findall(r"^\s*:\s+(\S+)", fh.read(), re.M)
    names = set(REGISTRY.table) | {row.name for row in WORDS} | set(prelude)
    return sorted(n for n in names if not (n.startswith("(") and n.endswith(")") and len(n) > 2))


_JS = r"""(function () {
  var words = %(words)s;
  function register(CodeMirror) {
    var known = {};
    words.forEach(function (w) { known[w.toUpperCase()] = true; });
    CodeMirror.defineMode("%(mode)s", function () {
      return {
        startState: function () { return {comment: false}; },
        token: function (stream, state) {
          if (state.comment) {
            if (stream.skipTo(")")) { stream.next(); state.comment = false; } else { stream.skipToEnd(); }
            return "comment";
          }
          if (stream.sol() && stream.match(/^%%%%forth\b.*/)) { return "meta"; }
          if (stream.eatSpace()) { return null; }
          var w = stream.match(/^\S+/)[0];
          if (w === "\\") { stream.skipToEnd(); return "comment"; }
          if (w === "(") { state.comment = true; return "comment"; }
          if (/^-?(\d+\.?|\$-?[0-9a-fA-F]+|#-?\d+|%%-?[01]+|\d*\.\d+(e[-+]?\d+)?|\d+e[-+]?\d+)$/i.test(w)) {
            return "number";
          }
          return known[w.toUpperCase()] ? "keyword" : "variable";
        },
        lineComment: "\\"
      };
    });
    CodeMirror.defineMIME("text/x-%(mode)s", "%(mode)s");
  }
  function lab(app) {
    // JupyterLab 4 / Notebook 7 started with --expose-app-in-browser: public models only
    var FORTH = "text/x-forth";
    function each(it, fn) {
      if (!it) { return; }
      if (typeof it[Symbol.iterator] === "function") { for (var x of it) { fn(x); } return; }
      if (typeof it.next === "function") { var y; while ((y = it.next()) !== undefined) { fn(y); } }
    }
    function source(model) {
      if (model.sharedModel && typeof model.sharedModel.getSource === "function") { return model.sharedModel.getSource(); }
      return (model.value && model.value.text) || "";
    }
    function scan() {
      each(app.shell.widgets("main"), function (w) {
        var nb = w && w.content;
        if (!nb || !nb.widgets || !nb.model) { return; }
        nb.widgets.forEach(function (cell) {
          var m = cell.model;
          if (!m || m.type !== "code") { return; }
          var forth = /^%%%%forth\b/.test(source(m));
          if (forth && m.mimeType !== FORTH) { m.mimeType = FORTH; }
          else if (!forth && m.mimeType === FORTH && nb.codeMimetype) { m.mimeType = nb.codeMimetype; }
        });
      });
    }
    if (!window.__tileforthLab) {
      window.__tileforthLab = {scan: scan, timer: setInterval(scan, %(scan_ms)d)};
    }
    scan();
  }
  function say(text) {
    if (typeof element !== "undefined" && element && "textContent" in element) { element.textContent = text; }
  }
  if (typeof require !== "function" || typeof require.config !== "function") {  // no RequireJS: JupyterLab, Notebook 7
    if (typeof window !== "undefined" && window.jupyterapp && window.jupyterapp.shell) {
      lab(window.jupyterapp);
      say("(tileforth: %%%%forth cells highlighted with JupyterLab's Forth mode)");
    } else {
      say("(tileforth: JupyterLab highlights %%%%forth cells as Forth only when started with " +
          "--expose-app-in-browser, e.g. `jupyter lab --expose-app-in-browser`; docs/repl.md)");
    }
    return;
  }
  require(["codemirror/lib/codemirror", "notebook/js/codecell"], function (CodeMirror, codecell) {
    register(CodeMirror);
    codecell.CodeCell.options_default.highlight_modes["magic_%(mode)s"] = {reg: [/^%%%%forth/]};
    if (window.Jupyter && Jupyter.notebook) {
      Jupyter.notebook.get_cells().forEach(function (c) { if (c.cell_type === "code") { c.auto_highlight(); } });
    }
  });
})();
"""


def javascript(names: list[str] | None = None) -> str:
    """The Javascript that registers the mode for `%%forth` cells (the words given, or word_names())."""
    return _JS % {"words": json.dumps(word_names() if names is None else names), "mode": MODE,
                  "scan_ms": LAB_SCAN_MS}


def wanted(ipython) -> bool:
    """Whether to send the highlighting on load: in a kernel (a notebook front end may run it), not in a
    terminal IPython (where a Javascript object would print as text); TILEFORTH_NO_HIGHLIGHT=1: never."""
    return getattr(ipython, "kernel", None) is not None and not os.environ.get("TILEFORTH_NO_HIGHLIGHT")
