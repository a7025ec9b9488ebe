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
              "sphinx_gallery.gen_gallery"]
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


def setup(app):
    app.connect("autodoc-process-docstring", _items, priority=600)
