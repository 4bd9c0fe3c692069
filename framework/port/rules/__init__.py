"""The porter's rules, one concept per module, in the order the driver applies them."""

from .arrays import ArraysRule
from .attach_grad import AttachGradRule
from .context import ContextRule
from .getitem import GetitemRule
from .imports import ImportsRule
from .isinstance_rule import IsinstanceRule
from .methods import MethodsRule
from .numpy_aliases import NumpyAliasRule
from .out_arg import OutArgRule
from .scalars import ScalarsRule
from .setitem import SetitemRule
from .unported import UnportedScan
from .version import VersionRule

__all__ = ["ORDER", "ArraysRule", "AttachGradRule", "ContextRule", "GetitemRule", "ImportsRule",
           "IsinstanceRule", "MethodsRule", "NumpyAliasRule", "OutArgRule", "ScalarsRule", "SetitemRule",
           "UnportedScan", "VersionRule"]

# ArraysRule rewrites calls in place (no line moves) before UnportedScan reads the source (true line
# numbers), so what it routes is not reported; NumpyAliasRule (numpy names NumPy 2 removed) also reports,
# so it comes early; AttachGradRule is last because it is the only rule that adds lines.
ORDER = (ArraysRule, UnportedScan, NumpyAliasRule, VersionRule, ImportsRule, IsinstanceRule, ContextRule,
         MethodsRule, ScalarsRule, OutArgRule, SetitemRule, GetitemRule, AttachGradRule)
