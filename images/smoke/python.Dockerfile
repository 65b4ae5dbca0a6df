# Smoke test for `docker build` FROM the local Python base (scripts/build-images.sh builds and removes it).
ARG BASE=federa/base-python:local
FROM ${BASE}
RUN mkdir -p /app && printf 'import json, pickle, csv, base64, os\nprint("smoke-python ok")\n' > /app/main.py
WORKDIR /app
CMD ["python3", "/app/main.py"]
