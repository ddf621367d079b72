"""Rendering: Jinja HTML, Chromium PDF with boxes from the laid-out page, the scan
condition. Knows nothing of which pack it renders for."""
