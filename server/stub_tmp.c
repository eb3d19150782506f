int cmd_selfplay(int argc, char **argv){(void)argc;(void)argv;return 1;}
