from keilref.cli import main

main()
