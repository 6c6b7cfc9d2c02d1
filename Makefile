# Entry points: `make test`, `make run` (the Fashion-MNIST example), `make bench` (vs libtorch).
# The real build is CMake + Ninja; this file only strings the steps together.
BUILD      ?= build
BENCH_DIR  ?= build-bench
CMAKE_ARGS := -G Ninja -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps build test run bench clean

all: build

deps:
	scripts/install-deps

build: deps
	cmake -S . -B $(BUILD) $(CMAKE_ARGS)
	cmake --build $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j2

run: build
	./$(BUILD)/strata_train_fashion_mnist_cnn
	@echo "serve it:  $(BUILD)/tools/strata/strata serve --hub strata.db --model fashion_mnist_cnn@max:accuracy"
	@echo "           its requests and batches: curl -s 127.0.0.1:8000/v2/models/fashion_mnist_cnn/stats (Prometheus: /metrics)"
	@echo "see it:    $(BUILD)/tools/strata/strata ui --hub strata.db   (then open http://127.0.0.1:8080/)"
	@echo "or in TensorBoard: $(BUILD)/tools/strata/strata hub --hub strata.db export-tensorboard RUN  (RUN: printed above)"

bench:
	scripts/install-deps --bench
	cmake -S . -B $(BENCH_DIR) $(CMAKE_ARGS) -DSTRATA_BUILD_BENCH=ON
	cmake --build $(BENCH_DIR) --target bench_vs_libtorch
	bench/run.sh $(BENCH_DIR)/bench/bench_vs_libtorch

clean:
	rm -rf $(BUILD) $(BENCH_DIR)
