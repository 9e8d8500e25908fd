import streamlit as st

st.title("Store")
st.info("This page is being built.")
