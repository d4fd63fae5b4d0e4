from memcli.main import main

raise SystemExit(main())
