"""xplane_tensorboard: xplane-sqlite's analysis as a TensorBoard tab (plugin.py)."""
