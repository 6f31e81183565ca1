import ForcetermCommands

Forceterm.main()
