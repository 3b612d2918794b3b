"""Everything about the package is in pyproject.toml; this file only keeps
`pip install -e .` quiet.

aicf maps its sub-packages to top-level folders (pyproject's `package-dir`:
`aicf.dialects` is `dialects/`, ...), which setuptools serves in an editable install
through an import finder, and for that it emits an `InformationOnly` warning on every
install ("be careful with folders in your working directory with the same name as your
package"). Every editable strategy for such a layout emits one (strict: another
InformationOnly; compat: a deprecation), and pyproject.toml has no setting for it. It
is information about the layout, not a problem (from the repository root, `aicf/`
is the package itself, and the finder supplies the mapped sub-packages), so exactly
that category is ignored; every other warning still shows.
test/python/test_packaging.py fails if an editable install prints a warning.
"""

import warnings

from setuptools import setup
from setuptools.warnings import InformationOnly

warnings.filterwarnings("ignore", category=InformationOnly)
setup()
