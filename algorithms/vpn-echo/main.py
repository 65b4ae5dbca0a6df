import vpn_echo
from federa_algorithm_tools import run

run(vpn_echo, with_data=False)
