from boardlab.experiments.cli import main

main()
