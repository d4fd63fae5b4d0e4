def run(command, args, dir_option):
    return None
