"""Loss functions: cross entropies, regression errors, VAE terms and metric-learning losses."""
