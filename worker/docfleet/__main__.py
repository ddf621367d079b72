from docfleet.cli import entrypoint

entrypoint()
