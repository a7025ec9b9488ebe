"""Sphinx configuration of fembody's documentation (``make docs``)."""
import os
import re
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("MPLBACKEND", "Agg")

import fembody  # noqa: E402

project = "fembody"
author = "fembody developers"
copyright = "fembody developers"
release = version = fembody.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "sphinx.ext.mathjax",
              "sphinx_gallery.gen_gallery", "myst_parser"]
# the user guide is Markdown (its code blocks run as tests, like the README's); myst-parser
# renders it as a page of this site
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
autodoc_member_order = "bysource"
# (autodoc's flag options are on whatever their value: "undoc-members": False and
# "show-inheritance": False listed the undocumented members and the bases; True says so.
# Every public method is listed: tests/test_docs.py)
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autodoc_typehints = "description"
autodoc_typehints_format = "short"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
# a numpydoc "Attributes" section as a field list: the dataclasses' fields are documented
# once, by autodoc, not a second time as attribute directives
napoleon_use_ivar = True
nitpicky = False
suppress_warnings = ["autodoc.import_object"]

sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    # only the short examples run while the docs build (plot_*.py); the long ones (run_*.py)
    # are shown as code
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py",
    "download_all_examples": False,
    "remove_config_comments": True,
    "plot_gallery": "True",
    "abort_on_example_error": True,
}

html_theme = "alabaster"
html_static_path: list = []
exclude_patterns = ["_build", "gallery/make.py"]


# Many docstrings list their arguments as ``name : text`` lines (with indented continuation
# lines) outside a numpydoc "Parameters" section, and write norms as |x|. After napoleon has
# turned the real sections into fields, make those lines definition-list items and escape the
# bars (reST would read |x| as a substitution).
_ITEM = re.compile(r"^(\s*)([A-Za-z_][\w, *.]*?) : (\S.*)$")
_BARS = re.compile(r"(?<![\\`|])\|([^|\s`][^|`]*?)\|(?![`|_])")
_LITERAL = re.compile(r"(``.+?``)")


def _items(app, what, name, obj, options, lines):
    out, inside = [], None
    for line in lines:
        m = _ITEM.match(line)
        indent = len(line) - len(line.lstrip())
        if inside is not None and line.strip() and indent <= inside and not m:
            out.append("")                   # a definition list ends with a blank line
            inside = None
        if m and not line.lstrip().startswith(":"):
            if inside is None and out and out[-1].strip():
                out.append("")
            out += [f"{m.group(1)}**{m.group(2)}**", f"{m.group(1)}    {m.group(3)}"]
            inside = len(m.group(1))
            continue
        if ":math:" not in line and line.count("``") % 2 == 0:
            # outside ``literals`` only (a literal keeps its bars as written; a line where
            # one starts or ends is left alone)
            line = "".join(part if part.startswith("``") else _BARS.sub(r"\\|\1\\|", part)
                           for part in _LITERAL.split(line))
        out.append(line)
    lines[:] = out


# A numpydoc "Parameters" entry is ``name : type`` with its description on the next, indented
# lines. Written as ``name : description`` (or followed by a paragraph at the same indent),
# napoleon reads the prose as types and its words as parameter names: valid reST that renders
# garbled (the buckling page read "buckling) (The pre-buckling path is linearised ..."), so
# Sphinx had nothing to warn about. This check makes it a warning, and -W makes it an error.
_PARAM = re.compile(r"^\s*:param (?:([^:]+) )?(\*{0,2}[\w.]+):")
_TYPE = re.compile(r"^\s*:type (\*{0,2}[\w.]+): (.*)$")
PROSE_WORDS = 8        # a type longer than this many words is a description read as a type


def docstring_problems(obj, lines) -> list[str]:
    """What napoleon's output ``lines`` of ``obj``'s docstring says that cannot be true: a
    parameter ``obj`` does not take, or a type that is a sentence."""
    import inspect
    try:
        names = set(inspect.signature(obj).parameters)
    except (TypeError, ValueError):
        names = None
    out = []
    for line in lines:
        m = _PARAM.match(line)
        if m and names is not None and m.group(2).lstrip("*") not in names:
            out.append(f"documents a parameter {m.group(2)!r} that the signature does not "
                       "have (a description written as 'name : text', or a paragraph inside "
                       "Parameters?)")
        t = _TYPE.match(line)
        if t and len(t.group(2).split()) > PROSE_WORDS:
            out.append(f"the type of {t.group(1)!r} reads like a description "
                       f"({t.group(2)[:50]!r}...): write 'name : type' and the description on "
                       "the next, indented line")
    return out


def _check(app, what, name, obj, options, lines):
    if what not in ("function", "method", "class"):
        return
    from sphinx.util import logging
    for problem in docstring_problems(obj, lines):
        logging.getLogger("fembody.docstrings").warning(f"{name}: {problem}",
                                                        type="fembody", subtype="docstring")


def setup(app):
    app.connect("autodoc-process-docstring", _items, priority=600)
    app.connect("autodoc-process-docstring", _check, priority=550)
