from legion_memory.cli.entry import main

raise SystemExit(main())
