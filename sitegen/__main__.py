from sitegen.commands.cli import script

script()
