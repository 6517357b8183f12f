"""How far apart two colours look, to people with normal colour vision, with the common
red-green deficiencies and with the blue-yellow one. Qt-free, numpy only; the palette test
(tests/test_palette.py) uses it to prove that every legend's entries stay apart.

- Colour-vision deficiency: Machado, Oliveira & Fernandes (2009), "A Physiologically-based
  Model for Simulation of Color Vision Deficiency", IEEE TVCG 15(6); the severity-1.0
  matrices for protanopia, deuteranopia and tritanopia, applied to linear sRGB.
- Difference: CIEDE2000 (Sharma, Wu & Dalal 2005, "The CIEDE2000 Color-Difference Formula:
  Implementation Notes..."), from CIELAB under D65. About 1 is the smallest difference a
  viewer notices side by side; legends need far more than that.
"""

from __future__ import annotations

import math

import numpy as np

MACHADO_2009 = {
    "normal": np.eye(3),
    "protanopia": np.array([[0.152286, 1.052583, -0.204868],
                            [0.114503, 0.786281, 0.099216],
                            [-0.003882, -0.048116, 1.051998]]),
    "deuteranopia": np.array([[0.367322, 0.860646, -0.227968],
                              [0.280085, 0.672501, 0.047413],
                              [-0.011820, 0.042940, 0.968881]]),
    # blue-yellow: rarer, but it folds pinks and purples towards greys and reds
    "tritanopia": np.array([[1.255528, -0.076749, -0.178779],
                            [-0.078411, 0.930809, 0.147602],
                            [0.004733, 0.691367, 0.303900]]),
}
VISIONS = tuple(MACHADO_2009)

# sRGB (D65) to CIE XYZ, and the D65 white point (IEC 61966-2-1)
_RGB_TO_XYZ = np.array([[0.4124564, 0.3575761, 0.1804375],
                        [0.2126729, 0.7151522, 0.0721750],
                        [0.0193339, 0.1191920, 0.9503041]])
_WHITE = np.array([0.95047, 1.0, 1.08883])


def hex_rgb(colour: str) -> np.ndarray:
    """'#rrggbb' -> float[3] in 0..1 (gamma-encoded sRGB)."""
    h = colour.lstrip("#")
    if len(h) != 6:
        raise ValueError(f"colour must be #rrggbb; got {colour!r}")
    return np.array([int(h[i:i + 2], 16) for i in (0, 2, 4)], dtype=float) / 255.0


def to_linear(rgb: np.ndarray) -> np.ndarray:
    rgb = np.asarray(rgb, dtype=float)
    return np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)


def simulate(colour: str, vision: str) -> np.ndarray:
    """Linear sRGB (float[3], 0..1) of `colour` as a viewer with `vision` sees it."""
    if vision not in MACHADO_2009:
        raise ValueError(f"vision must be one of {', '.join(VISIONS)}; got {vision!r}")
    return np.clip(MACHADO_2009[vision] @ to_linear(hex_rgb(colour)), 0.0, 1.0)


def lab(linear_rgb: np.ndarray) -> np.ndarray:
    """CIELAB (L*, a*, b*) of a linear sRGB colour, D65 white."""
    xyz = _RGB_TO_XYZ @ np.asarray(linear_rgb, dtype=float) / _WHITE
    eps, kappa = 216 / 24389, 24389 / 27
    f = np.where(xyz > eps, np.cbrt(xyz), (kappa * xyz + 16) / 116)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def ciede2000(lab1, lab2) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (kL = kC = kH = 1)."""
    l1, a1, b1 = (float(v) for v in lab1)
    l2, a2, b2 = (float(v) for v in lab2)
    c_bar = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(c_bar ** 7 / (c_bar ** 7 + 25 ** 7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360 if c1p else 0.0
    h2p = math.degrees(math.atan2(b2, a2p)) % 360 if c2p else 0.0
    dl, dc = l2 - l1, c2p - c1p
    if c1p * c2p == 0:
        dh = 0.0
    elif abs(h2p - h1p) <= 180:
        dh = h2p - h1p
    else:
        dh = h2p - h1p - 360 if h2p > h1p else h2p - h1p + 360
    dh_big = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    l_bar, cp_bar = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        h_bar = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        h_bar = (h1p + h2p) / 2
    else:
        h_bar = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (1 - 0.17 * math.cos(math.radians(h_bar - 30)) + 0.24 * math.cos(math.radians(2 * h_bar))
         + 0.32 * math.cos(math.radians(3 * h_bar + 6))
         - 0.20 * math.cos(math.radians(4 * h_bar - 63)))
    d_theta = 30 * math.exp(-(((h_bar - 275) / 25) ** 2))
    r_c = 2 * math.sqrt(cp_bar ** 7 / (cp_bar ** 7 + 25 ** 7))
    s_l = 1 + 0.015 * (l_bar - 50) ** 2 / math.sqrt(20 + (l_bar - 50) ** 2)
    s_c = 1 + 0.045 * cp_bar
    s_h = 1 + 0.015 * cp_bar * t
    r_t = -math.sin(math.radians(2 * d_theta)) * r_c
    return math.sqrt((dl / s_l) ** 2 + (dc / s_c) ** 2 + (dh_big / s_h) ** 2
                     + r_t * (dc / s_c) * (dh_big / s_h))


def difference(colour1: str, colour2: str, vision: str = "normal") -> float:
    """CIEDE2000 between two '#rrggbb' colours as a viewer with `vision` sees them."""
    return ciede2000(lab(simulate(colour1, vision)), lab(simulate(colour2, vision)))


def contrast(colour1: str, colour2: str, vision: str = "normal") -> float:
    """WCAG 2 contrast ratio (1 to 21) of two '#rrggbb' colours as a viewer with `vision`
    sees them: relative luminance from the simulated linear sRGB. Lightness survives a
    missing cone type where hue does not, so this is what a shape's edge can rely on."""
    y1, y2 = (float(_RGB_TO_XYZ[1] @ simulate(c, vision)) for c in (colour1, colour2))
    hi, lo = max(y1, y2), min(y1, y2)
    return (hi + 0.05) / (lo + 0.05)


def closest_pair(colours: dict[str, str]) -> tuple[float, str, str, str]:
    """(difference, name, name, vision) of the two entries that look most alike to any of
    the VISIONS."""
    worst = (math.inf, "", "", "")
    names = list(colours)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for vision in VISIONS:
                d = difference(colours[a], colours[b], vision)
                if d < worst[0]:
                    worst = (d, a, b, vision)
    return worst
