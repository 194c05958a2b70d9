"""Numeric formats: storage size and the limits that follow from the bit layout.

For a binary floating-point format with ``e`` exponent bits, ``m`` mantissa (fraction) bits and
bias ``b = 2**(e-1) - 1`` (IEEE 754-2019, section 3.3):

* smallest normal = ``2**(1 - b)``; smallest subnormal = ``2**(1 - b - m)``;
* largest finite, by how the top exponent code is used:
  ``ieee`` (top code is inf/NaN): ``(2 - 2**-m) * 2**(2**e - 2 - b)``;
  ``fn`` (OCP FP8 E4M3: no inf, NaN only at all-ones): ``(2 - 2**(1-m)) * 2**(2**e - 1 - b)``;
  ``none`` (OCP MX FP6/FP4: no inf, no NaN): ``(2 - 2**-m) * 2**(2**e - 1 - b)``.

Sources: IEEE 754-2019 (fp64, fp32, fp16); Google's bfloat16 (8 exponent, 7 mantissa bits);
NVIDIA A100 whitepaper for TF32 (8 exponent, 10 mantissa bits, stored as 32 bits); OCP 8-bit
Floating Point Specification (OFP8) rev. 1.0, 2023 (E4M3 and E5M2); OCP Microscaling Formats (MX)
v1.0, 2023 (FP6 E2M3/E3M2, FP4 E2M1).
"""

from typing import ClassVar, Literal

import pint
from pydantic import Field, model_validator

from mlcost.errors import closest_names
from mlcost.specs.base import Spec
from mlcost.units import Q_

#: Compute formats, the keys of an accelerator's ``peak_compute``.
COMPUTE_FORMATS: tuple[str, ...] = (
    "fp64",
    "fp32",
    "tf32",
    "fp16",
    "bf16",
    "fp8",
    "fp6",
    "fp4",
    "int8",
    "int4",
)


def unknown_format_message(field: str, value: str) -> str:
    """The error text for a compute format that is not one of :data:`COMPUTE_FORMATS`."""
    hint = closest_names(value, COMPUTE_FORMATS)
    suggestion = f"; did you mean {hint[0]!r}?" if hint else ""
    return f"{field}: got {value!r}, expected one of {', '.join(COMPUTE_FORMATS)}{suggestion}"


class NumericFormat(Spec):
    """A number format as stored in memory and as fed to the arithmetic units."""

    KIND: ClassVar[str] = "format"
    kind: Literal["format"] = "format"
    family: Literal["float", "int"]
    storage_bits: int = Field(gt=0, le=128)
    exponent_bits: int = Field(default=0, ge=0, le=15)
    mantissa_bits: int = Field(default=0, ge=0, le=112)
    special_values: Literal["ieee", "fn", "none"] = "ieee"
    signed: bool = True
    compute_format: str

    @model_validator(mode="after")
    def _layout_fits(self) -> "NumericFormat":
        if self.compute_format not in COMPUTE_FORMATS:
            raise ValueError(unknown_format_message("compute_format", self.compute_format))
        if self.family == "float":
            if self.exponent_bits < 1:
                raise ValueError("exponent_bits: a float format needs at least one exponent bit")
            used = 1 + self.exponent_bits + self.mantissa_bits
            # TF32 keeps 19 meaningful bits in a 32-bit container, so used <= storage.
            if used > self.storage_bits:
                raise ValueError(
                    f"storage_bits: got {self.storage_bits}, expected >= 1 + exponent_bits + "
                    f"mantissa_bits = {used}"
                )
        return self

    @property
    def storage_bytes(self) -> pint.Quantity:
        """Bytes one value occupies in memory (int4: 0.5 byte)."""
        return Q_(self.storage_bits / 8, "byte")

    @property
    def bias(self) -> int:
        """Exponent bias ``2**(e-1) - 1``."""
        return int(2 ** (self.exponent_bits - 1) - 1)

    @property
    def max_finite(self) -> float:
        """Largest finite value, derived from the bit layout (see module docstring)."""
        if self.family == "int":
            return float(
                2 ** (self.storage_bits - 1) - 1 if self.signed else 2**self.storage_bits - 1
            )
        e, m, b = self.exponent_bits, self.mantissa_bits, self.bias
        if self.special_values == "ieee":
            return float((2 - 2.0**-m) * 2.0 ** (2**e - 2 - b))
        if self.special_values == "fn":
            return float((2 - 2.0 ** (1 - m)) * 2.0 ** (2**e - 1 - b))
        return float((2 - 2.0**-m) * 2.0 ** (2**e - 1 - b))

    @property
    def min_finite(self) -> float:
        """Most negative finite value (ints: two's complement)."""
        if self.family == "int":
            return float(-(2 ** (self.storage_bits - 1)) if self.signed else 0)
        return -self.max_finite

    @property
    def smallest_normal(self) -> float:
        """Smallest positive normal value ``2**(1 - bias)`` (ints: 1)."""
        if self.family == "int":
            return 1.0
        return float(2.0 ** (1 - self.bias))

    @property
    def smallest_subnormal(self) -> float:
        """Smallest positive subnormal value ``2**(1 - bias - m)`` (ints: 1)."""
        if self.family == "int":
            return 1.0
        return float(2.0 ** (1 - self.bias - self.mantissa_bits))

    @property
    def machine_epsilon(self) -> float:
        """Distance from 1 to the next representable value, ``2**-m`` (ints: 1)."""
        if self.family == "int":
            return 1.0
        return float(2.0**-self.mantissa_bits)

    def derived(self) -> dict[str, object]:
        """The derived limits, for display."""
        return {
            "storage_bytes": self.storage_bytes,
            "max_finite": self.max_finite,
            "smallest_normal": self.smallest_normal,
            "smallest_subnormal": self.smallest_subnormal,
            "machine_epsilon": self.machine_epsilon,
        }
