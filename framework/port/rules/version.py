"""``mx.__version__`` -> ``mx.base.__version__``: the MXNet API version that framework implements
(``'1.9.1'``, what MXNet 1.9.1's own ``mxnet.base.__version__`` says), so a library that checks it
(``LooseVersion(mx.__version__) >= '1.4.0'``) sees the API it runs on. ``framework.__version__`` stays the
project's own release. ``from mxnet import __version__`` becomes ``from mxnet.base import __version__``
(the imports rule then maps the module); other names imported beside it keep their own statement.

It runs before the imports rule, so it sees the names as the module wrote them."""

from __future__ import annotations

import libcst as cst

from .._analysis import dotted
from ._base import Rule

__all__ = ["VersionRule"]


def _is_version(alias: cst.ImportAlias) -> bool:
    return isinstance(alias.name, cst.Name) and alias.name.value == "__version__"


class VersionRule(Rule):
    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if updated.attr.value != "__version__" or self.info.resolve(updated.value) != "framework":
            return updated
        self.count("version")
        return updated.with_changes(value=cst.Attribute(value=updated.value, attr=cst.Name("base")))

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        if updated.relative or updated.module is None or dotted(updated.module) not in ("mxnet", "framework"):
            return updated
        if isinstance(updated.names, cst.ImportStar) or not any(_is_version(a) for a in updated.names):
            return updated
        self.count("version")
        base = cst.Attribute(value=updated.module, attr=cst.Name("base"))
        version = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in updated.names if _is_version(a)]
        others = [a for a in updated.names if not _is_version(a)]
        versioned = cst.ImportFrom(module=base, names=version)
        if not others:
            return versioned.with_changes(semicolon=updated.semicolon)
        others[-1] = others[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return cst.FlattenSentinel([updated.with_changes(names=others, lpar=None, rpar=None,
                                                         semicolon=cst.MaybeSentinel.DEFAULT), versioned])
