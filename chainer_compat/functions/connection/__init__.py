"""Connection functions: ``linear``, ``embed_id``, ``bilinear``."""
