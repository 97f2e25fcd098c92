# COMPOSED for ptune's examples by examples/compose.py (not a captured file).
# Shape of build_output/<Program>_<ts>/kernel_config.py as pypto's pto_backend.py writes it:
# one tab-indented dict per kernel, sorted by func_id.
KERNELS = [
	{"func_id": 0, "name": "QK", "source": str(_ROOT_DIR / "kernels" / "aic" / "QK.cpp"), "core_type": "aic"},
	{"func_id": 1, "name": "SF", "source": str(_ROOT_DIR / "kernels" / "aiv" / "SF.cpp"), "core_type": "aiv"},
	{"func_id": 2, "name": "PV_cube", "source": str(_ROOT_DIR / "kernels" / "aic" / "PV_cube.cpp"), "core_type": "aic"},
	{"func_id": 3, "name": "PV_vec", "source": str(_ROOT_DIR / "kernels" / "aiv" / "PV_vec.cpp"), "core_type": "aiv"},
	{"func_id": 4, "name": "UP", "source": str(_ROOT_DIR / "kernels" / "aiv" / "UP.cpp"), "core_type": "aiv"},
]
