from assignment_oracle.cli import command

command()
