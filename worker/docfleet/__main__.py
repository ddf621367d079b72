from docfleet.cli import main

main()
