# vantage6: from vantage6.tools.docker_wrapper import docker_wrapper
from federa_algorithm_tools.wrapper import docker_wrapper

docker_wrapper("v6_algorithm")
