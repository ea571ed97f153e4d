from familiars.cli.main import main

main()
