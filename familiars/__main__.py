from familiars.cli import main

main()
