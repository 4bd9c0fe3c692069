"""The porter's rules, one concept per module, in the order the driver applies them."""

from .attach_grad import AttachGradRule
from .context import ContextRule
from .imports import ImportsRule
from .isinstance_rule import IsinstanceRule
from .methods import MethodsRule
from .numpy_aliases import NumpyAliasRule
from .setitem import SetitemRule
from .unported import UnportedScan

__all__ = ["ORDER", "AttachGradRule", "ContextRule", "ImportsRule", "IsinstanceRule", "MethodsRule",
           "NumpyAliasRule", "SetitemRule", "UnportedScan"]

# UnportedScan reads the untouched source (true line numbers); AttachGradRule is last because it is the
# only rule that adds lines. NumpyAliasRule (numpy names NumPy 2 removed) also reports, so it comes early.
ORDER = (UnportedScan, NumpyAliasRule, ImportsRule, IsinstanceRule, ContextRule, MethodsRule, SetitemRule,
         AttachGradRule)
